#pragma once
// `openloop --model M --request-rate 10 ...`: a `vllm bench serve` command
// line with `openloop` in its place (cli/vllm_flags.hpp), run as `openloop
// run`, its summary.json carrying vLLM's top-level keys, and with
// --save-result the same JSON where vLLM would have written its result.

#include <string>
#include <vector>

namespace openloop {

int vllm_main(const std::vector<std::string>& args);

}  // namespace openloop
