#pragma once
// Lock-free single-producer/single-consumer ring after rigtorp/SPSCQueue: the
// io thread pushes fixed-size events, the reporter thread pops them. Neither
// side ever blocks or allocates. The two indices live on separate cache lines,
// and each side keeps a private copy of the other's index on its own line, so
// in steady state a push or pop touches no line the other thread writes.

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace openloop {

// Not std::hardware_destructive_interference_size: GCC warns that its value
// may change between compiler versions, which would change this layout; 64
// bytes is the line size of every x86-64 and most ARM64 cores we run on.
inline constexpr std::size_t cache_line_size = 64;

template <class T>
class spsc_ring {
    static_assert(std::is_trivially_copyable_v<T>, "ring slots are copied as raw events");

public:
    // Capacity is min_capacity rounded up to a power of two, so an index maps
    // to its slot with a mask; throws std::invalid_argument for 0 or a size
    // too large to round.
    explicit spsc_ring(std::size_t min_capacity)
        : capacity_(checked_capacity(min_capacity)), mask_(capacity_ - 1),
          slots_(std::make_unique_for_overwrite<slot[]>(capacity_)) {}

    spsc_ring(const spsc_ring&) = delete;
    spsc_ring& operator=(const spsc_ring&) = delete;

    // Producer only. False, without waiting, when the ring is full.
    bool try_push(const T& value) noexcept {
        const std::size_t tail = tail_.load(std::memory_order_relaxed);
        if (tail - head_cache_ == capacity_) {
            head_cache_ = head_.load(std::memory_order_acquire);
            if (tail - head_cache_ == capacity_) {
                return false;
            }
        }
        std::memcpy(slots_[tail & mask_].bytes, &value, sizeof(T));
        tail_.store(tail + 1, std::memory_order_release);
        return true;
    }

    // Consumer only. False, without waiting, when the ring is empty.
    bool try_pop(T& value) noexcept {
        const std::size_t head = head_.load(std::memory_order_relaxed);
        if (head == tail_cache_) {
            tail_cache_ = tail_.load(std::memory_order_acquire);
            if (head == tail_cache_) {
                return false;
            }
        }
        std::memcpy(&value, slots_[head & mask_].bytes, sizeof(T));
        head_.store(head + 1, std::memory_order_release);
        return true;
    }

    // Exact when neither side is running; otherwise a value the size held at
    // some instant during the call, at most capacity().
    std::size_t size_approx() const noexcept {
        // Head first: the tail read after it can only be further ahead.
        const std::size_t head = head_.load(std::memory_order_acquire);
        const std::size_t tail = tail_.load(std::memory_order_acquire);
        const std::size_t size = tail - head;
        return size < capacity_ ? size : capacity_;
    }

    std::size_t capacity() const noexcept { return capacity_; }

private:
    static std::size_t checked_capacity(std::size_t min_capacity) {
        if (min_capacity == 0 || min_capacity > (std::size_t{1} << (sizeof(std::size_t) * 8 - 2))) {
            throw std::invalid_argument("spsc_ring: capacity must be between 1 and 2^62");
        }
        return std::bit_ceil(min_capacity);
    }

    // Free-running indices (slot = index & mask_): tail - head is the size,
    // so all capacity_ slots are usable without a sentinel slot.
    alignas(cache_line_size) const std::size_t capacity_;
    const std::size_t mask_;
    // Raw bytes, not T: a T with member initializers would have every slot
    // written at construction (48 MB for the run's million events, and most
    // of a second of a sanitized run's start); a slot is read only after a
    // push wrote it.
    struct slot {
        alignas(T) unsigned char bytes[sizeof(T)];
    };
    const std::unique_ptr<slot[]> slots_;

    alignas(cache_line_size) std::atomic<std::size_t> tail_{0};  // written by the producer
    std::size_t head_cache_ = 0;                                 // producer's view of head_

    alignas(cache_line_size) std::atomic<std::size_t> head_{0};  // written by the consumer
    std::size_t tail_cache_ = 0;                                 // consumer's view of tail_
    // The class's alignment pads its size to whole lines, so a neighbouring
    // object never shares the consumer's line either.
};

}  // namespace openloop
