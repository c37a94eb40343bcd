// Moved to <bin_serializer/view/array_view.hpp>; this path keeps working.
#pragma once
#include "view/array_view.hpp"
