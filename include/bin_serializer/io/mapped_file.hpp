// Moved to <bin_serializer/buffer/mapped_file.hpp>; this path keeps working.
#pragma once
#include "../buffer/mapped_file.hpp"
