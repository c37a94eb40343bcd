// Moved to <bin_serializer/view/sequence_view.hpp>; this path keeps working.
#pragma once
#include "view/sequence_view.hpp"
