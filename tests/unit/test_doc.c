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
 * Its layout helpers: every table in a box that scrolls sideways, a long
 * table folded, a contents list nested by level with working anchors after
 * the first section; and the report's number format (about four
 * significant digits).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "render/buf.h"
#include "render/doc.h"
#include "render/report_sections.h"

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

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void html_wraps_tables_folds_long_ones_and_lists_contents(void **state)
{
    (void)state;
    se_doc d = {0};
    se_doc_heading(&d, 1, "Report");
    se_doc_heading(&d, 2, "The answer");
    se_doc_para(&d, "yes");
    se_doc_heading(&d, 2, "Timing");
    se_doc_heading(&d, 3, "Shape 1x1");
    se_doc_table(&d, "a|b", "lr");
    const char *r[] = {"x", "1"};
    se_doc_row(&d, 2, r);
    se_doc_table_end(&d);
    se_doc_heading(&d, 3, "Shape 2x2");
    se_doc_table(&d, "a|b", "lr");
    for (int i = 0; i <= SE_DOC_FOLD_ROWS; i++)
        se_doc_row(&d, 2, r);
    se_doc_table_end(&d);
    se_doc_heading(&d, 2, "Limits");
    se_buf b = {0};
    se_doc_html_with_toc(&d, NULL, 3, &b);
    const char *h = se_buf_str(&b);
    /* Every table scrolls in its own box; only the long one is folded. */
    assert_int_equal(count(h, "<table>"), 2);
    assert_int_equal(count(h, "<div class=\"scroll\"><table>"), 2);
    assert_int_equal(count(h, "<details>"), 1);
    /* The answer comes before the contents, the rest after it. */
    const char *answer = strstr(h, "id=\"the-answer\""), *toc = strstr(h, "<nav class=\"toc\"");
    const char *timing = strstr(h, "<h2 id=\"timing\"");
    assert_non_null(answer);
    assert_non_null(toc);
    assert_non_null(timing);
    assert_true(answer < toc && toc < timing);
    /* Nested contents: level 3 inside level 2, every link to an id. */
    assert_non_null(strstr(h, "<li><a href=\"#timing\">Timing</a><ul>\n"
                              "<li><a href=\"#shape-1x1\">Shape 1x1</a></li>\n"
                              "<li><a href=\"#shape-2x2\">Shape 2x2</a></li>\n</ul></li>\n"
                              "<li><a href=\"#limits\">Limits</a></li>\n</ul>\n</nav>"));
    assert_int_equal(count(h, "<ul>"), count(h, "</ul>"));
    assert_int_equal(count(h, "<li>"), count(h, "</li>"));
    assert_int_equal(count(h, "href=\"#contents\""), 3);
    se_buf_free(&b);
    /* Without a contents list no heading links to one. */
    se_doc_html(&d, NULL, &b);
    assert_int_equal(count(se_buf_str(&b), "#contents"), 0);
    assert_non_null(strstr(se_buf_str(&b), "<a class=\"anchor\" href=\"#shape-2x2\""));
    se_buf_free(&b);
    se_doc_free(&d);
}

static void report_numbers_have_about_four_significant_digits(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0.089999999999999997, "0.09000"}, {125.67, "125.7"},    {12.44, "12.44"},
        {3.3999999999999999, "3.400"},      {8979.123, "8979"},  {123456.7, "123457"},
        {9.99996, "10.00"},                 {0.99996, "1.000"},  {0, "0"},
        {-1.23456, "-1.235"},               {0.00001234, "1.234e-05"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        se_rep_sig(buf, sizeof buf, cases[i].v);
        assert_string_equal(buf, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_text_lays_out_headings_lists_tables_and_pre),
        cmocka_unit_test(esc_html_escapes_the_five_special_characters),
        cmocka_unit_test(html_escapes_every_run_and_attribute),
        cmocka_unit_test(html_wraps_tables_folds_long_ones_and_lists_contents),
        cmocka_unit_test(report_numbers_have_about_four_significant_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
