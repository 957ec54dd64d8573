#pragma once
// An answer's tool calls as they streamed, each by its index (a model may call
// several at once: tool_calls index 0, 1, ...): id, function name and
// arguments, their pieces concatenated. A session sends them back whole, each
// answered by a tool message of its own. The strings keep their memory from
// answer to answer, so no allocation once the list held calls as long. Pure.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

struct tool_call_text {
    std::string id, name, arguments;
};

class tool_call_list {
public:
    // More calls at once than any server makes: an index past it is not kept, so a
    // hostile stream's index 1000000000 grows nothing.
    static constexpr std::size_t most = 64;

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const tool_call_text& operator[](std::size_t i) const { return calls_[i]; }
    // The call at index, in use with every one before it (emptied when new to this answer);
    // null past most.
    tool_call_text* at(std::size_t index) {
        if (index >= most) return nullptr;
        while (size_ <= index) {
            if (size_ == calls_.size()) calls_.emplace_back();
            tool_call_text& c = calls_[size_++];
            c.id.clear();
            c.name.clear();
            c.arguments.clear();
        }
        return &calls_[index];
    }
    void clear() { size_ = 0; }
    void swap(tool_call_list& other) noexcept {
        calls_.swap(other.calls_);
        std::swap(size_, other.size_);
    }

private:
    std::vector<tool_call_text> calls_;
    std::size_t size_ = 0;
};

}  // namespace openloop
