#pragma once
// Synthetic media whose encoded size is what real media's is: an image is
// smooth colour gradients, a few octaves of low-frequency value noise (the
// texture of surfaces), shapes with hard edges and a little grain, so JPEG
// at quality 85 takes about 0.1-0.4 bytes per pixel as for a photo (a flat
// image takes ~0.02, noise ~3); a clip is speech-like: voiced syllables whose
// pitch and formants move, short pauses, breath noise. Both a function of
// their seed alone. Pure.

#include "openloop/media/image_codec.hpp"

#include <cstdint>
#include <string>

namespace openloop {

rgb_image make_image(int width, int height, std::uint64_t seed);

inline constexpr int audio_sample_rate = 16'000;
// A WAV file (RIFF, PCM 16-bit, mono, 16 kHz) of seconds of speech-like sound.
std::string make_speech_wav(double seconds, std::uint64_t seed);

}  // namespace openloop
