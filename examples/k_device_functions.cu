// Device functions that stay functions in PTX (__noinline__): recursion (Fibonacci, gcd),
// several parameters, a struct returned by value; and templates: a template kernel
// instantiated for int and double, a template device function, and a kernel taking a
// functor. Self-checking: exits 0 and prints "PASS k_device_functions".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            fprintf(stderr, "FAIL k_device_functions: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                                     \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

struct Pair {
    int q;
    float r;
};

__host__ __device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__host__ __device__ __noinline__ int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

__host__ __device__ __noinline__ Pair divmod(int a, int b, float scale) {
    Pair p;
    p.q = a / b;
    p.r = (float)(a % b) * scale;
    return p;
}

template <typename T> __host__ __device__ T square_plus(T x, T y) { return x * x + y; }

__global__ void recursive(const int *a, const int *b, int *fibs, int *gcds, int *qs, float *rs,
                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fibs[i] = fib(a[i] % 16);
    gcds[i] = gcd(a[i], b[i]);
    Pair p = divmod(a[i], b[i], 0.5f);
    qs[i] = p.q;
    rs[i] = p.r;
}

template <typename T, int SCALE> __global__ void scale_add(const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = square_plus<T>(x[i], (T)SCALE * y[i]);
}

struct AddThenDouble {
    int add;
    __host__ __device__ int operator()(int v) const { return 2 * (v + add); }
};

template <typename F> __global__ void apply(F f, int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = f(v[i]);
}

template <typename T> static T *to_device(const std::vector<T> &h) {
    T *d;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> to_host(const T *d, int n) {
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main() {
    const int n = 1000;
    int failures = 0;
    std::vector<int> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 1 + (i * 37) % 997;
        b[i] = 1 + (i * 11) % 89;
    }
    int *d_a = to_device(a), *d_b = to_device(b);
    int *d_fib, *d_gcd, *d_q;
    float *d_r;
    CHECK(cudaMalloc(&d_fib, n * sizeof(int)));
    CHECK(cudaMalloc(&d_gcd, n * sizeof(int)));
    CHECK(cudaMalloc(&d_q, n * sizeof(int)));
    CHECK(cudaMalloc(&d_r, n * sizeof(float)));
    recursive<<<(n + 127) / 128, 128>>>(d_a, d_b, d_fib, d_gcd, d_q, d_r, n);
    CHECK(cudaGetLastError());
    std::vector<int> fibs = to_host(d_fib, n), gcds = to_host(d_gcd, n), qs = to_host(d_q, n);
    std::vector<float> rs = to_host(d_r, n);
    for (int i = 0; i < n; ++i) {
        Pair p = divmod(a[i], b[i], 0.5f);
        if (fibs[i] != fib(a[i] % 16) || gcds[i] != gcd(a[i], b[i]) || qs[i] != p.q ||
            rs[i] != p.r) {
            if (failures++ < 5)
                fprintf(stderr, "recursive[%d]: fib %d gcd %d q %d r %g; expected %d %d %d %g\n",
                        i, fibs[i], gcds[i], qs[i], rs[i], fib(a[i] % 16), gcd(a[i], b[i]),
                        p.q, p.r);
        }
    }

    // templates: int with SCALE 3, double with SCALE 2
    std::vector<int> xi(n), yi(n);
    std::vector<double> xd(n), yd(n);
    for (int i = 0; i < n; ++i) {
        xi[i] = i % 50 - 25;
        yi[i] = i % 7;
        xd[i] = 0.5 * (i % 40) - 10.0;
        yd[i] = 0.25 * (i % 9);
    }
    int *d_xi = to_device(xi), *d_yi = to_device(yi);
    double *d_xd = to_device(xd), *d_yd = to_device(yd);
    scale_add<int, 3><<<(n + 255) / 256, 256>>>(d_xi, d_yi, n);
    CHECK(cudaGetLastError());
    scale_add<double, 2><<<(n + 255) / 256, 256>>>(d_xd, d_yd, n);
    CHECK(cudaGetLastError());
    std::vector<int> ri = to_host(d_yi, n);
    std::vector<double> rd = to_host(d_yd, n);
    for (int i = 0; i < n; ++i) {
        int wi = square_plus<int>(xi[i], 3 * yi[i]);
        double wd = square_plus<double>(xd[i], 2.0 * yd[i]);
        if (ri[i] != wi || rd[i] != wd) {
            if (failures++ < 5)
                fprintf(stderr, "scale_add[%d]: %d %g, expected %d %g\n", i, ri[i], rd[i], wi, wd);
        }
    }

    // a functor passed by value as a kernel argument
    AddThenDouble f = {5};
    apply<<<(n + 255) / 256, 256>>>(f, d_xi, n);
    CHECK(cudaGetLastError());
    std::vector<int> fi = to_host(d_xi, n);
    for (int i = 0; i < n; ++i)
        if (fi[i] != f(xi[i]) && failures++ < 5)
            fprintf(stderr, "apply[%d] = %d, expected %d\n", i, fi[i], f(xi[i]));

    CHECK(cudaFree(d_a)); CHECK(cudaFree(d_b)); CHECK(cudaFree(d_fib)); CHECK(cudaFree(d_gcd));
    CHECK(cudaFree(d_q)); CHECK(cudaFree(d_r)); CHECK(cudaFree(d_xi)); CHECK(cudaFree(d_yi));
    CHECK(cudaFree(d_xd)); CHECK(cudaFree(d_yd));
    if (failures) {
        fprintf(stderr, "FAIL k_device_functions: %d failures\n", failures);
        return 1;
    }
    printf("recursion, struct returns, templates and functors checked on %d elements\n", n);
    printf("PASS k_device_functions\n");
    return 0;
}
