// Parsing a command line whose every word is an option, an option's value or
// one of the inputs the program names.
#pragma once

#include <boost/program_options.hpp>
#include <string>

namespace perron::app {

// argv parsed against `options` and stored into vm (Boost's default style: an
// unambiguous prefix of a long name is that option). The first `max_words`
// words that are neither an option nor an option's value are the values of
// the option `word_option` (which `options` holds, hidden from --help); a word
// past them is a usage_error naming it and saying `reads` ("pagerank reads one
// GRAPH"). Boost dropped such a word where no positional option was declared:
// 'heat1d --n 500' ran N = 101, '--n' read as '--no-progress' (a switch, so
// '500' was a stray word) where the user meant -n.
void store_command_line(int argc, char** argv, const boost::program_options::options_description& options,
                        boost::program_options::variables_map& vm, const char* word_option = nullptr,
                        int max_words = 0, const std::string& reads = "this program reads no file");

}  // namespace perron::app
