// Moved to <bin_serializer/buffer/concepts.hpp>; this path keeps working.
#pragma once
#include "buffer/concepts.hpp"
