// Moved to <bin_serializer/buffer/fixed_buffer.hpp>; this path keeps working.
#pragma once
#include "buffer/fixed_buffer.hpp"
