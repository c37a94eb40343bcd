# Doc-tests: the C++ snippets of README.md and docs/*.md are built and run, so
# the documentation cannot drift from the library.
#
# Convention (docs/api.md, "Documentation snippets"):
#   - a ```cpp block that contains `int main` is a complete program: it is
#     compiled against the library and run as the ctest test
#     doc_snippet.<file>.L<line>; exit status 0 is a pass;
#   - any other ```cpp block must be marked as a fragment by the line
#         <!-- doc-test: fragment -->
#     as the last non-blank line before its opening fence (an HTML comment,
#     invisible when the Markdown is rendered). A block with neither is a
#     configure error, so a snippet is never silently left untested.
#
# bin_serializer_add_doc_snippets(<markdown files...>) adds one executable and
# one test per complete program. Programs run in a scratch directory under the
# build tree (some create files).

function(_bin_serializer_doc_snippet_name md out)
  file(RELATIVE_PATH _rel "${PROJECT_SOURCE_DIR}" "${md}")
  string(REGEX REPLACE "\\.md$" "" _rel "${_rel}")
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" _rel "${_rel}")
  set(${out} "${_rel}" PARENT_SCOPE)
endfunction()

function(bin_serializer_add_doc_snippets)
  set(_gen_dir "${CMAKE_CURRENT_BINARY_DIR}/doc_snippets")
  set(_run_dir "${_gen_dir}/run")
  file(MAKE_DIRECTORY "${_run_dir}")
  foreach(_md IN LISTS ARGN)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_md}")
    _bin_serializer_doc_snippet_name("${_md}" _stem)
    file(READ "${_md}" _rest)
    string(REPLACE "\r\n" "\n" _rest "${_rest}")
    string(APPEND _rest "\n")
    set(_line_no 0)
    set(_last_nonblank "")
    set(_in_block FALSE)
    set(_block "")
    set(_block_line 0)
    set(_block_is_cpp FALSE)
    set(_block_fragment FALSE)
    # Walked line by line with string(FIND): CMake lists would split C++ at ';'.
    while(NOT _rest STREQUAL "")
      string(FIND "${_rest}" "\n" _nl)
      string(SUBSTRING "${_rest}" 0 ${_nl} _line)
      math(EXPR _next "${_nl} + 1")
      string(SUBSTRING "${_rest}" ${_next} -1 _rest)
      math(EXPR _line_no "${_line_no} + 1")
      if(NOT _in_block)
        if(_line MATCHES "^```")
          set(_in_block TRUE)
          set(_block "")
          set(_block_line ${_line_no})
          if(_line MATCHES "^```(cpp|c\\+\\+)[ \t]*$")
            set(_block_is_cpp TRUE)
          else()
            set(_block_is_cpp FALSE)
          endif()
          if(_last_nonblank MATCHES "<!--[ \t]*doc-test:[ \t]*fragment[ \t]*-->")
            set(_block_fragment TRUE)
          else()
            set(_block_fragment FALSE)
          endif()
        elseif(NOT _line MATCHES "^[ \t]*$")
          set(_last_nonblank "${_line}")
        endif()
      elseif(_line MATCHES "^```[ \t]*$")
        set(_in_block FALSE)
        set(_last_nonblank "")
        if(_block_is_cpp AND NOT _block_fragment)
          file(RELATIVE_PATH _where "${PROJECT_SOURCE_DIR}" "${_md}")
          if(NOT _block MATCHES "int main[ \t]*\\(")
            message(FATAL_ERROR
              "${_where}:${_block_line}: this ```cpp block has no `int main` and no "
              "<!-- doc-test: fragment --> line before it. Make it a complete program "
              "(it is then built and run by ctest) or mark it as a fragment.")
          endif()
          set(_name "doc_snippet_${_stem}_L${_block_line}")
          set(_src "${_gen_dir}/${_name}.cpp")
          set(_content "// Generated from ${_where}:${_block_line} (cmake/DocSnippets.cmake).\n${_block}")
          # Rewrite only on change, so a re-configure does not rebuild every snippet.
          set(_old "")
          if(EXISTS "${_src}")
            file(READ "${_src}" _old)
          endif()
          if(NOT _old STREQUAL _content)
            file(WRITE "${_src}" "${_content}")
          endif()
          add_executable(${_name} "${_src}")
          target_link_libraries(${_name} PRIVATE bin_serializer::bin_serializer)
          set_target_properties(${_name} PROPERTIES CXX_EXTENSIONS OFF)
          bin_serializer_set_warnings(${_name})
          add_test(NAME doc_snippet.${_stem}.L${_block_line} COMMAND ${_name}
                   WORKING_DIRECTORY "${_run_dir}")
          set_tests_properties(doc_snippet.${_stem}.L${_block_line} PROPERTIES
                               LABELS "doc_snippet" TIMEOUT 60)
        endif()
      else()
        string(APPEND _block "${_line}\n")
      endif()
    endwhile()
  endforeach()
endfunction()
