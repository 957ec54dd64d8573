#pragma once
// A first-in first-out queue in one array used as a ring: memory is taken when
// it holds more than ever before, never per push. std::deque, used as a queue,
// takes a block and frees one every few pushes as its contents move through
// memory, which on the io thread is an allocation per few requests.

#include <cstddef>
#include <utility>
#include <vector>

namespace openloop {

template <class T>
class fifo {
public:
    explicit fifo(std::size_t capacity = 16) : slots_(capacity > 0 ? capacity : 1) {}

    void push(T value) {
        if (count_ == slots_.size()) grow();
        slots_[(head_ + count_) % slots_.size()] = std::move(value);
        ++count_;
    }
    T pop() {
        T value = std::move(slots_[head_]);
        head_ = (head_ + 1) % slots_.size();
        --count_;
        return value;
    }
    const T& front() const { return slots_[head_]; }
    // The i-th from the front.
    const T& operator[](std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }
    std::size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    void clear() {
        while (!empty()) pop();
    }

private:
    void grow() {
        std::vector<T> wider(slots_.size() * 2);
        for (std::size_t i = 0; i < count_; ++i) wider[i] = std::move(slots_[(head_ + i) % slots_.size()]);
        slots_ = std::move(wider);
        head_ = 0;
    }

    std::vector<T> slots_;
    std::size_t head_ = 0, count_ = 0;
};

}  // namespace openloop
