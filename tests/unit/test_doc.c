/*
 * test_doc.c - unit tests of the document builder's plain-text back end
 * (se_doc_plain) and of its HTML escaping (se_doc_esc_html, se_doc_html).
 *
 * The text back end is what the terminal shows, so its layout is pinned
 * byte for byte: headings underlined to their width, items as one list,
 * tables in aligned columns (right-aligned where asked, widths counted in
 * characters, not UTF-8 bytes), links followed by their target,
 * preformatted text indented. The HTML back end is the program's one HTML
 * escaper: each of & < > " ' must come out as an entity wherever text from
 * a run reaches a page (text, code, link text and target, alt text, pre).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "render/buf.h"
#include "render/doc.h"

static void plain_text_lays_out_headings_lists_tables_and_pre(void **state)
{
    (void)state;
    se_doc d = {0};
    se_doc_heading(&d, 1, "Results of %d shapes", 2);
    se_doc_heading(&d, 2, "Tables");
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "See ");
    se_doc_link(&d, "figures/fig1.svg", "the figure");
    se_doc_text(&d, " and ");
    se_doc_code(&d, "verify");
    se_doc_text(&d, ".");
    se_doc_end(&d);
    se_doc_item(&d, "first");
    se_doc_item(&d, "second");
    se_doc_table(&d, "strategy|median µs", "lr");
    const char *r1[] = {"stream", "12.5"};
    const char *r2[] = {"megakernel", "3.25"};
    se_doc_row(&d, 2, r1);
    se_doc_row(&d, 2, r2);
    se_doc_table_end(&d);
    se_doc_pre(&d, "line one\nline two");
    se_err err;
    assert_int_equal(se_doc_check(&d, "test", &err), SE_OK);

    se_buf out = {0};
    se_doc_plain(&d, &out);
    assert_false(out.oom);
    assert_string_equal(se_buf_str(&out),
                        "Results of 2 shapes\n"
                        "===================\n"
                        "\n"
                        "Tables\n"
                        "------\n"
                        "\n"
                        "See the figure (figures/fig1.svg) and verify.\n"
                        "\n"
                        "- first\n"
                        "- second\n"
                        "\n"
                        "strategy    median µs\n"
                        "----------  ---------\n"
                        "stream           12.5\n"
                        "megakernel       3.25\n"
                        "\n"
                        "    line one\n"
                        "    line two\n"
                        "\n");
    se_buf_free(&out);
    se_doc_free(&d);
}

static void esc_html_escapes_the_five_special_characters(void **state)
{
    (void)state;
    se_buf out = {0};
    se_doc_esc_html(&out, "a&b<c>d\"e'f");
    assert_string_equal(se_buf_str(&out), "a&amp;b&lt;c&gt;d&quot;e&#39;f");
    se_buf_free(&out);

    se_buf none = {0};
    se_doc_esc_html(&none, "plain text, no entities");
    assert_string_equal(se_buf_str(&none), "plain text, no entities");
    se_buf_free(&none);
}

static void html_escapes_every_run_and_attribute(void **state)
{
    (void)state;
    se_doc d = {0};
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "%s", "<b>&'\"");
    se_doc_code(&d, "a<b");
    se_doc_link(&d, "x.html?a=1&b='2'", "A & B");
    se_doc_end(&d);
    se_doc_figure(&d, "f\".png", "f'.svg", "alt <&>", 0);
    se_doc_text(&d, "cap \"q\"");
    se_doc_end(&d);
    se_doc_pre(&d, "if (a < b && c > d)");

    se_buf out = {0};
    se_doc_html(&d, NULL, &out);
    assert_string_equal(se_buf_str(&out),
                        "<p>&lt;b&gt;&amp;&#39;&quot;<code>a&lt;b</code>"
                        "<a href=\"x.html?a=1&amp;b=&#39;2&#39;\">A &amp; B</a></p>\n"
                        "<figure><a href=\"f&#39;.svg\"><img src=\"f&quot;.png\" "
                        "alt=\"alt &lt;&amp;&gt;\"></a><figcaption>cap &quot;q&quot;"
                        "</figcaption></figure>\n"
                        "<pre>if (a &lt; b &amp;&amp; c &gt; d)</pre>\n");
    se_buf_free(&out);
    se_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_text_lays_out_headings_lists_tables_and_pre),
        cmocka_unit_test(esc_html_escapes_the_five_special_characters),
        cmocka_unit_test(html_escapes_every_run_and_attribute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
