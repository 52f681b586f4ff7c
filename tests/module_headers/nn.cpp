// <jaxcc/nn.hpp> beside <jaxcc/numpy.hpp>: activations and their fused
// expressions print (parsed by the test headers_standalone).
#include <iostream>

#include <jaxcc/nn.hpp>
#include <jaxcc/numpy.hpp>

int main() {
  auto const x = jaxcc::numpy::ones<float>({3});
  std::cout << jaxcc::nn::softmax(x, -1) << '\n' << jaxcc::nn::relu(x) * 2.0f << '\n';
}
