// Catch2's session without a main: with v2, its implementation
// (CATCH_CONFIG_RUNNER), compiled once for the tests' main (catch_main.cpp)
// and test_distributed, which starts MPI before Catch; with v3, a call into
// its library.
#if JAXCC_CATCH_V3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "catch_session.hpp"

int jaxcc_tests::run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
