// Moved to <bin_serializer/core/bytes.hpp>; this path keeps working.
#pragma once
#include "core/bytes.hpp"
