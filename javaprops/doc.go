// Package javaprops is kmeta's one reader and writer of the
// java.util.Properties text format: a node's server.properties (migrate
// configs, --config ID=FILE), a client's client.properties (kafka://'s
// --command-config, read by kafkaread), and a log dir's meta.properties
// (metalog, which places its own errors with ParseLines' line numbers).
// Every product package that reads or writes such a file goes through it;
// it imports nothing of the project but the model (for the bounded read
// of an operator's input file).
//
// # The format, as Properties.load(InputStream) reads it
//
//   - Bytes are ISO-8859-1: every byte is one char. ASCII, all Kafka
//     writes, is unchanged.
//   - A line ends at \n, \r\n or \r. Blanks (space, \t, \f) at its start
//     are dropped; a line that is then empty or starts with '#' or '!' is
//     a comment.
//   - A line that ends in an odd number of backslashes continues on the
//     next, whose leading blanks are dropped; the key is placed at the
//     first physical line (ParseLines).
//   - The key ends at the first unescaped '=', ':' or blank; blanks and
//     at most one '=' or ':' after it are skipped; the rest is the value.
//   - Escapes: \t \n \r \f, \uXXXX (exactly four hex digits, else Java
//     refuses the file: a *SyntaxError), and \x for any other x. A high
//     and a low surrogate escape in a row are one code point, as Java's
//     chars make them; a lone surrogate, which a Go string cannot hold,
//     reads as U+FFFD.
//   - A later key wins.
//
// metalog's TestJavaValuesMatchKafka holds these rules against Java's own
// Properties.load (the surrogate pairs), in the same JVM run as its
// quorum-state cases.
//
// Format writes what Parse reads back unchanged: keys sorted, '=' as the
// separator, and everything outside printable ASCII escaped as \uXXXX
// (beyond the BMP, a surrogate pair), so that Kafka's ISO-8859-1 reading
// gets the same string.
//
// Errors never quote a line or a value: a value may be a secret. They
// name the file (Read) and the line.
package javaprops
