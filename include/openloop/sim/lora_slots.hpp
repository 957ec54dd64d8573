#pragma once
// The simulator's LoRA adapters (--lora-modules, --max-loras, --lora-load-ms):
// which adapters are resident, which run in the batch, and when a request's
// adapter must be loaded first. As vLLM: at most max_loras adapters in one
// batch (a request whose adapter would be one more waits, the others pass
// it), and as many resident; one not resident is loaded into the slot of the
// least recently used idle one, and the step that loads it takes longer.
// Pure: no sockets, no clocks.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// The adapter a request's "model" names: -1 the base model (or no model
// named), an index into adapters, nullopt when neither is served.
std::optional<int> adapter_of(std::string_view model, std::string_view base, const std::vector<std::string>& adapters);

class lora_slots {
public:
    explicit lora_slots(int max_loras);

    // Whether a request of adapter may join the batch now: the base model's always.
    bool fits(int adapter) const;
    // A request of adapter joined the batch; true when the adapter had to be loaded.
    bool start(int adapter);
    // A request of adapter left the batch (finished or aborted).
    void end(int adapter);

    int max_loras() const { return max_; }
    std::int64_t loads() const { return loads_; }
    // Adapters with requests in the batch, in index order.
    std::vector<int> running() const;

private:
    int max_;
    std::vector<int> in_batch_;  // requests in the batch, per adapter
    int distinct_ = 0;           // adapters with requests in the batch
    std::vector<int> resident_;  // most recently used first
    std::int64_t loads_ = 0;
};

}  // namespace openloop
