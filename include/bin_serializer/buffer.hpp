// Moved to <bin_serializer/buffer/buffer.hpp>; this path keeps working.
#pragma once
#include "buffer/buffer.hpp"
