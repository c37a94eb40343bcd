// Moved to <bin_serializer/buffer/span_buffer.hpp>; this path keeps working.
#pragma once
#include "buffer/span_buffer.hpp"
