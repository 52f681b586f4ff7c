// Catch2 v2 has no prebuilt main library in Debian's package: this file is
// its main (CATCH_CONFIG_MAIN's), catch_session.cpp its implementation.
#include "catch_session.hpp"

int main(int argc, char* argv[]) { return jaxcc_tests::run_catch_session(argc, argv); }
