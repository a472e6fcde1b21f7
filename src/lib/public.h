/* public.h: TF_PUBLIC marks the functions of include/testfence.h the library exports (it is
 * built with hidden visibility: nothing else leaves it). */
#ifndef TF_LIB_PUBLIC_H
#define TF_LIB_PUBLIC_H

#if defined(_WIN32)
#define TF_PUBLIC __attribute__((dllexport))
#else
#define TF_PUBLIC __attribute__((visibility("default")))
#endif

#endif
