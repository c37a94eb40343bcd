// Moved to <bin_serializer/frame/schema_hash.hpp>; this path keeps working.
#pragma once
#include "frame/schema_hash.hpp"
