#include "apps/common/command_line.hpp"

#include <vector>

#include "apps/common/usage.hpp"

namespace po = boost::program_options;

namespace perron::app {

void store_command_line(int argc, char** argv, const po::options_description& options, po::variables_map& vm,
                        const char* word_option, int max_words, const std::string& reads) {
  // The words past the inputs are collected by a hidden positional option,
  // then refused. (The parsed options point at `all`: they are stored before
  // it goes.)
  const char* const stray = "unexpected word";
  po::options_description all;
  all.add(options);
  all.add_options()(stray, po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  if (word_option && max_words != 0) pos.add(word_option, max_words);
  if (max_words >= 0) pos.add(stray, -1);
  po::parsed_options parsed = po::command_line_parser(argc, argv).options(all).positional(pos).run();
  for (std::size_t i = 0; i < parsed.options.size(); ++i) {
    const po::option& o = parsed.options[i];
    if (o.string_key != stray) continue;
    const std::string text = "unexpected argument '" + o.value.front() + "'";
    // After a switch given by a prefix of its name, say which one it was read as.
    if (i > 0) {
      const po::option& before = parsed.options[i - 1];
      const std::string& typed =
          before.original_tokens.empty() ? before.string_key : before.original_tokens[0];
      if (before.value.empty() && typed.rfind("--", 0) == 0 && typed != "--" + before.string_key)
        throw usage_error(text + ": '" + typed + "' was read as --" + before.string_key +
                          ", which takes no value");
    }
    throw usage_error(text + " (" + reads + "; options are --name value)");
  }
  po::store(parsed, vm);
}

}  // namespace perron::app
