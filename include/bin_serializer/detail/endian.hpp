// Moved to format/endian.hpp.
#pragma once
#include "../format/endian.hpp"
