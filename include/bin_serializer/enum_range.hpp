// Moved to <bin_serializer/reflect/enum_range.hpp>; this path keeps working.
#pragma once
#include "reflect/enum_range.hpp"
