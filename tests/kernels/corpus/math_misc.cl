// math_misc: the exact (or correctly rounded) built-ins, six float results and four int results per item
// packed into rows, plus mad separately (its accuracy is the implementation's choice: fused or not).
// Exercises: fabs, fmin, fmax, fma, clamp, select (float); min, max, clamp, abs (int); mad.
#define NF 6
#define NI 4

__kernel void math_misc(__global const float* a,
                        __global const float* b,
                        __global const float* c,
                        __global const int* p,
                        __global const int* q,
                        __global float* out_f,      /* n rows of NF */
                        __global int* out_i,        /* n rows of NI */
                        __global float* out_mad,
                        const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const float ai = a[i], bi = b[i], ci = c[i];
    const int pi = p[i], qi = q[i];

    __global float* f = out_f + i * NF;
    f[0] = fabs(ai);
    f[1] = fmin(ai, bi);
    f[2] = fmax(ai, bi);
    f[3] = fma(ai, bi, ci);
    f[4] = clamp(ai, -0.5f, 0.75f);
    f[5] = select(ai, bi, pi > qi);     /* scalar select: pi > qi ? bi : ai */

    __global int* k = out_i + i * NI;
    k[0] = min(pi, qi);
    k[1] = max(pi, qi);
    k[2] = clamp(pi, -100, 100);
    k[3] = (int)abs(pi);

    out_mad[i] = mad(ai, bi, ci);
}
