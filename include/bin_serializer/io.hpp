// Umbrella header for the I/O adapters, kept out of bin_serializer.hpp
// because it pulls in <istream>/<ostream>, <mutex> and POSIX headers:
//   io/stream.hpp       ostream_writer / istream_reader
//   io/fd.hpp           fd_writer / fd_reader             (POSIX)
//   io/mapped_file.hpp  MappedFile                        (POSIX)
//   buffer/pool.hpp     BufferPool / pooled_buffer
#pragma once

#include "bin_serializer.hpp"
#include "buffer/pool.hpp"
#include "io/fd.hpp"
#include "buffer/mapped_file.hpp"
#include "io/stream.hpp"
