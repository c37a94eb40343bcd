// Moved to <bin_serializer/reflect/reflect.hpp>; this path keeps working.
#pragma once
#include "reflect/reflect.hpp"
