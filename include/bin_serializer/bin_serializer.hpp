// Umbrella header: the core and every standard-library family codec.
#pragma once

#include "version.hpp"
#include "config.hpp"
#include "error.hpp"
#include "options.hpp"
#include "enum_range.hpp"
#include "buffer_concept.hpp"
#include "buffer.hpp"
#include "fixed_buffer.hpp"
#include "buffer_view.hpp"
#include "reflect.hpp"
#include "serializable.hpp"
#include "size.hpp"
#include "std/string.hpp"
#include "serializer.hpp"
#include "deserializer.hpp"
#include "std/all.hpp"
