// Moved to <bin_serializer/core/size.hpp>; this path keeps working.
#pragma once
#include "core/size.hpp"
