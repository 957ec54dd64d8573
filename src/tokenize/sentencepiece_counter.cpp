#include "openloop/tokenize/sentencepiece_counter.hpp"

#include "openloop/base/input_error.hpp"

#include <memory>
#include <stdexcept>
#include <vector>

#ifdef OPENLOOP_HAVE_SENTENCEPIECE
#include <sentencepiece_processor.h>
#endif

namespace openloop {

#ifdef OPENLOOP_HAVE_SENTENCEPIECE

bool sentencepiece_available() { return true; }

std::function<std::optional<int>(std::string_view text)> sentencepiece_counter(const std::string& model_file) {
    auto sp = std::make_shared<sentencepiece::SentencePieceProcessor>();
    if (const auto status = sp->Load(model_file); !status.ok())
        throw input_error("--tokenizer sentencepiece:" + model_file + ": " + status.ToString());
    // Models that define a BOS token prepend it to every prompt (Llama, Mistral, Gemma).
    const int bos = sp->bos_id() >= 0 ? 1 : 0;
    return [sp, bos](std::string_view text) -> std::optional<int> {
        std::vector<int> ids;
        if (!sp->Encode(text, &ids).ok()) return std::nullopt;
        return static_cast<int>(ids.size()) + bos;
    };
}

#else

bool sentencepiece_available() { return false; }

std::function<std::optional<int>(std::string_view text)> sentencepiece_counter(const std::string& model_file) {
    throw std::runtime_error("--tokenizer sentencepiece:" + model_file +
                             ": this openloop was built without SentencePiece (install libsentencepiece-dev and "
                             "rebuild); use --tokenizer server, ids or words");
}

#endif

}  // namespace openloop
