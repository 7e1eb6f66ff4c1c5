/* unit.defines: a program's -D options as (name, value) pairs, which the
 * program cache compares on every call: equal sets compare equal whether or
 * not their names share an address; any difference of count, order, name,
 * value or text makes them differ; the text written for the build has every
 * option once, in order, then the extra options, and says when it did not
 * fit. No device is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "internal.h"

static void make(defines *d)
{
    d->count = 0;
    defines_add(d, "CLR_TYPE", 0);
    defines_add(d, "CLR_WG", 256);
    defines_add_text(d, "CLR_WALK_TAG", "ulong");
    defines_add(d, "CLR_OFFSET", -3);
}

static void test_equal(void **state)
{
    (void)state;
    defines a, b;
    make(&a);
    make(&b);
    assert_true(defines_equal(&a, &b));
    /* The same names at other addresses, as from another file. */
    char name[] = "CLR_WG", text[] = "ulong";
    b.items[1].name = name;
    b.items[2].text = text;
    assert_true(defines_equal(&a, &b));
    defines empty1 = {0}, empty2 = {0};
    assert_true(defines_equal(&empty1, &empty2));
}

static void test_differ(void **state)
{
    (void)state;
    defines a, b;
    make(&a);

    make(&b);
    b.items[1].value = 512;
    assert_false(defines_equal(&a, &b));

    make(&b);
    b.items[0].name = "CLR_OP";
    assert_false(defines_equal(&a, &b));

    make(&b);
    b.items[2].text = "uint";
    assert_false(defines_equal(&a, &b));

    make(&b); /* a value where a text was */
    b.items[2].text = NULL;
    assert_false(defines_equal(&a, &b));

    make(&b);
    defines_add(&b, "CLR_EXTRA", 1);
    assert_false(defines_equal(&a, &b));

    make(&b); /* the same pairs in another order */
    define first = b.items[0];
    b.items[0] = b.items[1];
    b.items[1] = first;
    assert_false(defines_equal(&a, &b));
}

static void test_append_and_bound(void **state)
{
    (void)state;
    defines a, more = {0}, b;
    make(&a);
    defines_add(&more, "CLR_SCAN", 4);
    b = a;
    defines_append(&b, &more);
    assert_int_equal(b.count, a.count + 1);
    assert_string_equal(b.items[a.count].name, "CLR_SCAN");

    /* Past DEFINES_MAX nothing more is kept. */
    defines full = {0};
    for (int i = 0; i < DEFINES_MAX + 5; i++)
        defines_add(&full, "CLR_X", i);
    assert_int_equal(full.count, DEFINES_MAX);
    defines_append(&full, &more);
    assert_int_equal(full.count, DEFINES_MAX);
}

static void test_write(void **state)
{
    (void)state;
    defines a;
    make(&a);
    char out[256];
    size_t n = defines_write(&a, "-cl-std=CL2.0", "-DUSER=1", out, sizeof out);
    const char *want =
        "-DCLR_TYPE=0 -DCLR_WG=256 -DCLR_WALK_TAG=ulong -DCLR_OFFSET=-3 -cl-std=CL2.0 -DUSER=1";
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));

    /* No extras, or empty ones: no trailing space. */
    n = defines_write(&a, NULL, "", out, sizeof out);
    assert_string_equal(out, "-DCLR_TYPE=0 -DCLR_WG=256 -DCLR_WALK_TAG=ulong -DCLR_OFFSET=-3");

    defines none = {0};
    n = defines_write(&none, NULL, "-DUSER=1", out, sizeof out);
    assert_string_equal(out, "-DUSER=1");
    assert_int_equal(n, 8);

    /* Too small: the length says so, the text stays terminated. */
    char small[20];
    n = defines_write(&a, NULL, NULL, small, sizeof small);
    assert_true(n >= sizeof small);
    assert_true(strlen(small) < sizeof small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_differ),
        cmocka_unit_test(test_append_and_bound),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
