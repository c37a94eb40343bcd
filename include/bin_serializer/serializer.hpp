// Moved to <bin_serializer/core/encode.hpp>; this path keeps working.
#pragma once
#include "core/encode.hpp"
#include "std/string.hpp"
