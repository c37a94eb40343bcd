// Moved to <bin_serializer/core/classify.hpp>; this path keeps working.
#pragma once
#include "core/classify.hpp"
