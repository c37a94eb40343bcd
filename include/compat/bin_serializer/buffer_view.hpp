// Moved to <bin_serializer/buffer/buffer_view.hpp>; this path keeps working.
// Deprecated: a release 0.1 include path, kept in include/compat/ (the
// target's second include directory) so that 0.1 code still compiles.
#pragma once
#include <bin_serializer/buffer/buffer_view.hpp>
