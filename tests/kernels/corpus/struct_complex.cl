// Complex arithmetic with a struct passed to and returned from helper functions by value: out = a * b + conj(a)
// and |a|^2, for complex numbers with small integer parts (every product and sum is exact in float32).
typedef struct {
    float re;
    float im;
} Complex;

Complex cmul(Complex a, Complex b)
{
    Complex r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}

Complex cadd(Complex a, const Complex b)
{
    a.re += b.re;
    a.im += b.im;
    return a;
}

Complex conj(Complex a)
{
    a.im = -a.im;
    return a;
}

float norm2(Complex a) { return a.re * a.re + a.im * a.im; }

__kernel void complex_fma(__global const Complex* a,
                          __global const Complex* b,
                          __global Complex* out,
                          __global float* norms,
                          const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const Complex x = a[i];
    out[i] = cadd(cmul(x, b[i]), conj(x));
    norms[i] = norm2(i % 2 ? x : b[i]);
}
