// Links jaxcc::distributed from an installed jaxcc: run by mpirun with two
// processes, each sees every process's devices.
#include <jaxcc/distributed.hpp>
#include <jaxcc/jaxcc.hpp>

#include <iostream>

int main(int argc, char** argv) {
  jaxcc::distributed::initialize(argc, argv);
  std::cout << "process " << jaxcc::process_index() << " of " << jaxcc::process_count() << ": "
            << jaxcc::local_device_count() << " of " << jaxcc::device_count() << " devices\n";
  bool const ok = jaxcc::device_count() == jaxcc::process_count() * jaxcc::local_device_count();
  jaxcc::distributed::shutdown();
  return ok ? 0 : 1;
}
