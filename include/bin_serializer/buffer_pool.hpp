// Moved to <bin_serializer/buffer/pool.hpp>; this path keeps working.
#pragma once
#include "buffer/pool.hpp"
