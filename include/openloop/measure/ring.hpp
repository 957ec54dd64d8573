#pragma once
// Lock-free single-producer/single-consumer ring after rigtorp/SPSCQueue: the
// io thread pushes fixed-size events, the reporter thread pops them. Neither
// side ever blocks or allocates. The two indices live on separate cache lines,
// and each side keeps a private copy of the other's index on its own line, so
// in steady state a push or pop touches no line the other thread writes.
//
// A large ring's memory follows what it holds, not how far it has gone. A ring
// that walked every slot once a lap would make resident, page by page, all of
// itself (48 MiB for the run's million events) while holding a few events: a
// soak's generator RSS climbed for as long as the first lap lasted (hours at a
// few requests a second). So the ring's first eighth is hot: written at
// construction, and the producer goes back to its start, skipping the rest of
// the lap, whenever it reaches the end of the hot slots (or any later part's
// start) with the ring no more than half of that full. The rest is cold: only
// a burst the consumer falls behind on reaches it, and each part of it (a 64th
// of the ring) is handed back to the kernel once read whole, before the
// producer may write there again. Handing back the hot slots too would cost a
// page fault on the io thread every 85 events, lap after lap.

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace openloop {

// Whole pages of memory of the ring's own, untouched until written, whose
// pages can be handed back.
class ring_pages {
public:
    // Throws std::bad_alloc when the pages cannot be mapped.
    explicit ring_pages(std::size_t bytes);
    ~ring_pages();
    ring_pages(const ring_pages&) = delete;
    ring_pages& operator=(const ring_pages&) = delete;

    void* data() const noexcept { return base_; }
    // The whole pages inside [offset, offset + bytes) are given back: they
    // read as zeros and are resident again once written. A refusal of the
    // kernel leaves them resident, which costs memory and nothing else.
    void release(std::size_t offset, std::size_t bytes) const noexcept;
    // The bytes of these pages resident now (mincore): the ring's own memory,
    // apart from what a sanitizer keeps beside it; 0 if the kernel will not say.
    std::size_t resident_bytes() const;

private:
    void* base_;
    std::size_t bytes_;
};

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
        : capacity_(checked_capacity(min_capacity)), mask_(capacity_ - 1), part_(part_size(capacity_)),
          hot_(part_ > 1 ? capacity_ / 8 : capacity_), pages_(capacity_ * sizeof(slot)),
          slots_(static_cast<slot*>(pages_.data())) {
        // Resident from the start, so that the generator's RSS is flat from
        // its first request and the io thread never waits for these pages.
        if (hot_ < capacity_) std::memset(static_cast<void*>(slots_), 0, hot_ * sizeof(slot));
    }

    spsc_ring(const spsc_ring&) = delete;
    spsc_ring& operator=(const spsc_ring&) = delete;

    // Producer only. False, without waiting, when the ring is full.
    bool try_push(const T& value) noexcept {
        std::size_t tail = tail_.load(std::memory_order_relaxed);
        const std::size_t at = tail & mask_;
        if (at >= hot_ && (at & (part_ - 1)) == 0 && back_to_hot(tail)) {
            // Published with the tail below: a consumer that sees the new tail sees this.
            skip_from_.store(tail, std::memory_order_relaxed);
            tail += capacity_ - at;
        }
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
        std::size_t head = read_;
        if (head == tail_cache_) {
            tail_cache_ = tail_.load(std::memory_order_acquire);
            skip_cache_ = skip_from_.load(std::memory_order_relaxed);
            if (head == tail_cache_) {
                return false;
            }
        }
        if (head == skip_cache_) {
            // Where the producer went back to the hot slots (published below).
            // It skips only at a part's start, so every cold part before was
            // read whole.
            head += capacity_ - (head & mask_);
        }
        const std::size_t at = head & mask_;
        std::memcpy(&value, slots_[at].bytes, sizeof(T));
        read_ = head + 1;
        if (at < hot_) {
            head_.store(read_, std::memory_order_release);
        } else if ((read_ & (part_ - 1)) == 0) {
            // A cold part read whole: its pages go back before the producer
            // may write there again, which it may only once head_ moves past it.
            pages_.release((at + 1 - part_) * sizeof(slot), part_ * sizeof(slot));
            head_.store(read_, std::memory_order_release);
        }
        return true;
    }

    // Exact when neither side is running; otherwise a value the size held at
    // some instant during the call, at most capacity(). The slots of a cold
    // part not yet read whole count as held, and so do the slots a skip back
    // to the hot ones passed over until the consumer follows it: the producer
    // may not write them yet.
    std::size_t size_approx() const noexcept {
        // Head first: the tail read after it can only be further ahead.
        const std::size_t head = head_.load(std::memory_order_acquire);
        const std::size_t tail = tail_.load(std::memory_order_acquire);
        const std::size_t size = tail - head;
        return size < capacity_ ? size : capacity_;
    }

    std::size_t capacity() const noexcept { return capacity_; }
    // The slots the producer keeps to while the consumer keeps up: all of
    // them for a ring too small to hand pages back.
    std::size_t hot_slots() const noexcept { return hot_; }
    // The cold slots handed back at a time (1 when none are).
    std::size_t release_part() const noexcept { return part_; }
    // The ring's memory resident now, in bytes.
    std::size_t resident_bytes() const { return pages_.resident_bytes(); }

private:
    static std::size_t checked_capacity(std::size_t min_capacity) {
        if (min_capacity == 0 || min_capacity > (std::size_t{1} << (sizeof(std::size_t) * 8 - 2))) {
            throw std::invalid_argument("spsc_ring: capacity must be between 1 and 2^62");
        }
        return std::bit_ceil(min_capacity);
    }

    // A 64th of the ring, once that is 64 KiB or more: a madvise every 16,384
    // events of a burst through the run's ring, and at most that much of the
    // ring unusable to the producer while the consumer reads a cold part. A
    // smaller ring is not worth it: all hot, a classic ring.
    static std::size_t part_size(std::size_t capacity) {
        const std::size_t part = capacity / 64;
        return part * sizeof(slot) >= 64 * 1024 ? part : 1;
    }

    // Producer only, at a cold part's start: whether to go back to the hot
    // slots. Only with the ring at most half of them full, so that the slots
    // skipped, held until the consumer follows, leave the producer room.
    bool back_to_hot(std::size_t tail) noexcept {
        if (tail - head_cache_ > hot_ / 2) head_cache_ = head_.load(std::memory_order_acquire);
        return tail - head_cache_ <= hot_ / 2;
    }

    // Raw bytes, not T: a T with member initializers would have every slot
    // written at construction (48 MB for the run's million events, and most
    // of a second of a sanitized run's start); a slot is read only after a
    // push wrote it.
    struct slot {
        alignas(T) unsigned char bytes[sizeof(T)];
    };

    // Free-running indices (slot = index & mask_): tail - head is the size,
    // so all capacity_ slots are usable without a sentinel slot.
    alignas(cache_line_size) const std::size_t capacity_;
    const std::size_t mask_;
    const std::size_t part_;  // a power of two
    const std::size_t hot_;   // a multiple of part_
    const ring_pages pages_;
    slot* const slots_;

    alignas(cache_line_size) std::atomic<std::size_t> tail_{0};  // written by the producer
    // Where the producer last skipped to the next lap's start.
    std::atomic<std::size_t> skip_from_{std::numeric_limits<std::size_t>::max()};
    std::size_t head_cache_ = 0;  // producer's view of head_

    // What the producer may write over: a cold part is published once read whole.
    alignas(cache_line_size) std::atomic<std::size_t> head_{0};  // written by the consumer
    std::size_t read_ = 0;                                       // the next slot to pop
    std::size_t tail_cache_ = 0;                                 // consumer's view of tail_
    std::size_t skip_cache_ = std::numeric_limits<std::size_t>::max();  // ... and of skip_from_
    // The class's alignment pads its size to whole lines, so a neighbouring
    // object never shares the consumer's line either.
};

}  // namespace openloop
