#include "openloop/sim/lora_slots.hpp"

#include <algorithm>

namespace openloop {

std::optional<int> adapter_of(std::string_view model, std::string_view base, const std::vector<std::string>& adapters) {
    if (model.empty() || model == base) return -1;
    for (std::size_t i = 0; i < adapters.size(); ++i)
        if (adapters[i] == model) return static_cast<int>(i);
    return std::nullopt;
}

lora_slots::lora_slots(int max_loras) : max_(std::max(1, max_loras)) {}

bool lora_slots::fits(int adapter) const {
    if (adapter < 0) return true;
    const auto a = static_cast<std::size_t>(adapter);
    return (a < in_batch_.size() && in_batch_[a] > 0) || distinct_ < max_;
}

bool lora_slots::start(int adapter) {
    if (adapter < 0) return false;
    const auto a = static_cast<std::size_t>(adapter);
    if (a >= in_batch_.size()) in_batch_.resize(a + 1);
    if (in_batch_[a]++ == 0) ++distinct_;
    const auto at = std::find(resident_.begin(), resident_.end(), adapter);
    if (at != resident_.end()) {
        std::rotate(resident_.begin(), at, at + 1);  // most recently used
        return false;
    }
    if (resident_.size() == static_cast<std::size_t>(max_)) {
        // fits() kept the batch's adapters below max_: an idle one is resident to make room.
        const auto idle = std::find_if(resident_.rbegin(), resident_.rend(), [&](int r) {
            return in_batch_[static_cast<std::size_t>(r)] == 0;
        });
        if (idle != resident_.rend()) resident_.erase(std::next(idle).base());
    }
    resident_.insert(resident_.begin(), adapter);
    ++loads_;
    return true;
}

void lora_slots::end(int adapter) {
    if (adapter < 0) return;
    if (--in_batch_[static_cast<std::size_t>(adapter)] == 0) --distinct_;
}

std::vector<int> lora_slots::running() const {
    std::vector<int> out;
    for (std::size_t a = 0; a < in_batch_.size(); ++a)
        if (in_batch_[a] > 0) out.push_back(static_cast<int>(a));
    return out;
}

}  // namespace openloop
