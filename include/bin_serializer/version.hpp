// The library version, defined here and nowhere else: CMake reads these three
// lines to set the project version, the package version file and pkg-config.
#pragma once

#define BIN_SERIALIZER_VERSION_MAJOR 0
#define BIN_SERIALIZER_VERSION_MINOR 1
#define BIN_SERIALIZER_VERSION_PATCH 0

#define BIN_SERIALIZER_VERSION                                                 \
  (BIN_SERIALIZER_VERSION_MAJOR * 10000 + BIN_SERIALIZER_VERSION_MINOR * 100 + \
   BIN_SERIALIZER_VERSION_PATCH)
