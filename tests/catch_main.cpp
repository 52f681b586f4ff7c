// Catch2 v2 has no prebuilt main library in Debian's package; this file is it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
