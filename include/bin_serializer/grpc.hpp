// Moved to <bin_serializer/io/grpc.hpp>; this path keeps working.
#pragma once
#include "io/grpc.hpp"
