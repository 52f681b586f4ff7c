// Runs Catch2's session (what a Catch main does), for the test programs that
// link Catch's implementation from catch_session.cpp: v2 declares
// Catch::Session only where its implementation is compiled.
#pragma once

namespace jaxcc_tests {
int run_catch_session(int argc, char** argv);
}
