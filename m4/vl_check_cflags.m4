# vl_check_cflags.m4 -- keep the compiler flags that the compiler accepts.
#
# VL_CHECK_CFLAGS(VARIABLE, FLAG...)
# ----------------------------------
# For each FLAG, try to compile a trivial program with FLAG added to CFLAGS
# (and -Werror, so that a compiler which only warns about an unknown flag
# rejects it); append the FLAG to the shell VARIABLE when that works.
# For -Wno-X the positive -WX is tested, since GCC accepts any -Wno-X.
AC_DEFUN([VL_CHECK_CFLAGS],
[for vl_flag in $2; do
  AS_CASE([$vl_flag],
    [-Wno-*], [vl_probe=-W`echo "$vl_flag" | sed 's/^-Wno-//'`],
    [vl_probe=$vl_flag])
  AS_VAR_PUSHDEF([vl_cache], [vl_cv_cflag_$vl_probe])
  AC_CACHE_CHECK([whether $CC accepts $vl_flag], [vl_cache],
    [vl_save_CFLAGS=$CFLAGS
     CFLAGS="$CFLAGS -Werror $vl_probe"
     AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
       [AS_VAR_SET([vl_cache], [yes])], [AS_VAR_SET([vl_cache], [no])])
     CFLAGS=$vl_save_CFLAGS])
  AS_VAR_IF([vl_cache], [yes], [$1="$$1 $vl_flag"])
  AS_VAR_POPDEF([vl_cache])
done])

# VL_PROG_VERSION(PROGRAM-COMMAND, MINIMUM, MESSAGE)
# --------------------------------------------------
# Check that "PROGRAM-COMMAND --version" reports a version (the first
# dotted number on its first line) of at least MINIMUM; stop configure with
# MESSAGE otherwise.
AC_DEFUN([VL_PROG_VERSION],
[AC_MSG_CHECKING([for $1 >= $2])
vl_version=`$1 --version 2>/dev/null | sed -n ['1s/^[^0-9]*\([0-9][0-9]*\(\.[0-9][0-9]*\)*\).*$/\1/p']`
AS_IF([test -z "$vl_version"],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([$3])])
AS_VERSION_COMPARE([$vl_version], [$2],
  [AC_MSG_RESULT([no, $vl_version])
   AC_MSG_ERROR([$3])],
  [AC_MSG_RESULT([yes, $vl_version])],
  [AC_MSG_RESULT([yes, $vl_version])])])
