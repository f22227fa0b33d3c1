#!/bin/sh
# embed.sh NAME FILE: print a C file defining NAME[] and NAME_len with FILE's bytes.
set -eu
name=$1
file=$2
echo "/* generated from $file: do not edit */"
echo "#include <stddef.h>"
echo "extern const unsigned char ${name}[];"
echo "extern const size_t ${name}_len;"
echo "const unsigned char ${name}[] = {"
od -An -v -tx1 "$file" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
echo "};"
echo "const size_t ${name}_len = sizeof ${name};"
