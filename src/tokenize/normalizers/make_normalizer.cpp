// make_normalizer: the one place a normalizer's type is chosen, and where each
// step's result is held to the growth bound (stages.hpp).
#include "openloop/base/input_error.hpp"
#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/normalizers/bert_normalizer.hpp"
#include "openloop/tokenize/normalizers/common_normalizers.hpp"
#include "openloop/tokenize/normalizers/precompiled_normalizer.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

namespace {

// A step that refuses its result past the limit, naming where it lies in the file.
class bounded final : public normalizer {
public:
    bounded(std::unique_ptr<normalizer> step, std::string name) : step_(std::move(step)), name_(std::move(name)) {}
    void apply(std::string& text, std::size_t limit) const override {
        step_->apply(text, limit);
        if (text.size() > limit)
            throw input_error(name_ + " makes the text longer than " + std::to_string(limit) + " bytes: past " +
                              std::to_string(max_normalized_growth) +
                              " times what the tokenizer was given (and 256 bytes), a normalizer that multiplies "
                              "the text is refused");
    }

private:
    std::unique_ptr<normalizer> step_;
    std::string name_;  // "tokenizer.json: normalizer.normalizers[1] (Replace)"
};

std::unique_ptr<normalizer> make_step(const std::string& type, const boost::json::object& o, const std::string& path) {
    if (auto n = make_builtin_normalizer(type, o, path)) return n;
    if (type == "BertNormalizer") return make_bert_normalizer(o, path);
    if (type == "Precompiled") return make_precompiled_normalizer(o, path);
    unsupported_type(path, type);
}

}  // namespace

std::unique_ptr<normalizer> make_normalizer(const boost::json::value& v, const std::string& path) {
    if (v.is_null()) return nullptr;
    const boost::json::object& o = as_object(v, path);
    const std::string type = type_of(o, path);
    return std::make_unique<bounded>(make_step(type, o, path), path + " (" + type + ")");
}

}  // namespace openloop::hf
