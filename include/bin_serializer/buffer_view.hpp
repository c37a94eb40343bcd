// Moved to <bin_serializer/buffer/buffer_view.hpp>; this path keeps working.
#pragma once
#include "buffer/buffer_view.hpp"
