// Moved to <bin_serializer/reflect/evolution.hpp>; this path keeps working.
#pragma once
#include "reflect/evolution.hpp"
