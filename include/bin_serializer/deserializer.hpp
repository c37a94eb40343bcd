// Moved to <bin_serializer/core/decode.hpp>; this path keeps working.
#pragma once
#include "core/decode.hpp"
#include "std/string.hpp"
