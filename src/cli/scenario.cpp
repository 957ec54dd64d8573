#include "openloop/cli/scenario.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/base/trim.hpp"

#include <boost/program_options.hpp>

#include <cctype>
#include <fstream>
#include <string_view>

namespace openloop {

namespace po = boost::program_options;

namespace {

// Option name -> line of its first 'name = value' line, read as Program_options
// reads the file: '#' starts a comment, '[section]' prefixes "section.".
// Program_options names neither the line of a line it cannot read nor which
// line repeated an option, so both are refused here first, by line.
// where ("run: ") prefixes a refusal.
std::map<std::string, std::string> option_lines(const std::string& path, const std::string& where,
                                                const po::options_description& all) {
    std::map<std::string, std::string> lines;
    std::map<std::string, std::size_t> first_line;
    std::ifstream in(path);
    std::string line, section;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const std::string at = path + ":" + std::to_string(number);
        refuse_placeholders(line, where + at);
        std::string_view s = trim(std::string_view(line).substr(0, line.find('#')));
        if (s.empty()) continue;
        if (s.size() > 1 && s.front() == '[' && s.back() == ']') {
            section = std::string(trim(s.substr(1, s.size() - 2))) + ".";
            continue;
        }
        const auto eq = s.find('=');
        // The line is not echoed: it may be a header with its secret value.
        if (eq == std::string_view::npos)
            throw usage_error(where + at + ": expected 'name = value' or '[section]', found no '='");
        const std::string name = section + std::string(trim(s.substr(0, eq), " \t\r"));
        const auto [it, first] = first_line.emplace(name, number);
        const auto* d = all.find_nothrow(name, false);
        if (!first && d && !d->semantic()->is_composing())
            throw usage_error(where + at + ": --" + name + " is given again (first at line " +
                              std::to_string(it->second) + ")");
        lines.emplace(name, at);
    }
    return lines;
}

// Defaults are stored too; only a value given on the command line overrides the file's.
bool given(const po::variables_map& vm, const std::string& key) { return vm.count(key) && !vm[key].defaulted(); }

template <class... T>
bool typed_as(const po::value_semantic* s) {
    return (... || (dynamic_cast<const po::typed_value<T>*>(s) != nullptr));
}

// Program_options converts with lexical_cast, which reads "-1" as an unsigned
// 2^64-1 and takes inf and nan as doubles: every numeric text is read through
// base/quantity first, so it means what it means everywhere else.
// Values the command line gave are skipped: they override the file's.
void check_numbers(const po::parsed_options& parsed, const po::options_description& all,
                   const po::variables_map& vm) {
    for (const auto& opt : parsed.options) {
        if (opt.unregistered || opt.string_key.empty() || given(vm, opt.string_key)) continue;
        const auto* d = all.find_nothrow(opt.string_key, false);
        if (!d) continue;
        const po::value_semantic* s = d->semantic().get();
        const std::string flag = "--" + opt.string_key;
        for (const auto& text : opt.value) {
            if (typed_as<double>(s)) {
                parse_number(text, flag);
            } else if (typed_as<unsigned, unsigned long, unsigned long long>(s)) {
                if (trim(text, " \t\r").starts_with('-')) throw quantity_error(flag + ": '" + text + "' is negative");
                parse_integer(text, flag);
            } else if (typed_as<int, long, long long>(s)) {
                parse_integer(text, flag);
            }
        }
    }
}

std::string option_name_of(const po::error_with_option_name& e) {
    std::string name = e.get_option_name();
    name.erase(0, name.find_first_not_of('-'));
    return name;
}

}  // namespace

void refuse_placeholders(std::string_view text, const std::string& where) {
    // Program_options builds its messages by replacing these with the user's
    // text until none is left: text holding one never ends (found by fuzzing).
    constexpr std::string_view placeholders[] = {"%canonical_option%", "%option%", "%original_token%",
                                                 "%prefix%", "%value%", "%invalid_line%"};
    for (const auto p : placeholders)
        if (text.find(p) != std::string_view::npos)
            throw usage_error(where + ": '" + std::string(p) + "' may not appear in an option or its value");
}

std::string file_line_named(const parsed_command& p, const std::string& message) {
    std::size_t best = std::string::npos;
    std::string at;
    for (const auto& [name, where] : p.from_file) {
        const std::string flag = "--" + name;
        for (auto pos = message.find(flag); pos != std::string::npos && pos < best; pos = message.find(flag, pos + 1)) {
            const auto end = pos + flag.size();
            const bool whole = end == message.size() ||
                               !(std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-');
            if (whole) {
                best = pos;
                at = where;
                break;
            }
        }
    }
    return at;
}

parsed_command parse_command_line(const std::vector<std::string>& args, const po::options_description& all,
                                  const char* command, const char* file_option, bool positional) {
    po::options_description cli_only;
    cli_only.add(all);
    if (positional) cli_only.add_options()(file_option, po::value<std::string>(), "scenario file");
    po::positional_options_description pos;
    if (positional) pos.add(file_option, 1);
    parsed_command p;
    auto& vm = p.vm;
    const std::string where = std::string(command) + ": ";
    for (const auto& arg : args) refuse_placeholders(arg, std::string(command));
    try {
        const auto parsed = po::command_line_parser(args).options(cli_only).positional(pos).run();
        check_numbers(parsed, cli_only, vm);
        po::store(parsed, vm);
        if (vm.count(file_option)) {
            const auto path = vm[file_option].as<std::string>();
            std::ifstream in(path);
            if (!in)
                throw usage_error(where + (positional ? "cannot read scenario file " : "--" + std::string(file_option) +
                                                                                         ": cannot read file ") + path);
            const auto lines = option_lines(path, where, all);
            try {
                const auto from_file = po::parse_config_file(in, all);
                for (const auto& opt : from_file.options) {
                    if (given(vm, opt.string_key)) continue;  // the command line wins
                    if (auto it = lines.find(opt.string_key); it != lines.end()) p.from_file.emplace(opt.string_key, it->second);
                }
                check_numbers(from_file, all, vm);
                po::store(from_file, vm);
            } catch (const po::error_with_option_name& e) {
                const auto it = lines.find(option_name_of(e));
                throw usage_error(where + (it != lines.end() ? it->second : path) + ": " + e.what());
            } catch (const po::error& e) {
                throw usage_error(where + path + ": " + e.what());
            } catch (const quantity_error& e) {
                const auto at = file_line_named(p, e.what());
                throw usage_error(where + (at.empty() ? path : at) + ": " + e.what());
            }
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(where + e.what() + " (see openloop " + command + " --help)");
    } catch (const quantity_error& e) {
        throw usage_error(where + e.what());
    }
    return p;
}

parsed_command parse_with_scenario(const std::vector<std::string>& args, const po::options_description& all,
                                   const char* command) {
    return parse_command_line(args, all, command, "scenario", true);
}

}  // namespace openloop
