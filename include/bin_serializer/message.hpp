// Moved to <bin_serializer/frame/message.hpp>; this path keeps working.
#pragma once
#include "frame/message.hpp"
