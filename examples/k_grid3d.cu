// 3D grids and 3D blocks: every thread derives its (x, y, z) cell from blockIdx, blockDim
// and threadIdx in all three dimensions, records who wrote the cell, and counts visits;
// a second launch with a differently shaped block checks gridDim/blockDim in 3D.
// Self-checking: exits 0 and prints "PASS k_grid3d".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            fprintf(stderr, "FAIL k_grid3d: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                           \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

// who wrote a cell: block and thread coordinates packed 4 bits each
__host__ __device__ unsigned encode(unsigned bx, unsigned by, unsigned bz, unsigned tx,
                                    unsigned ty, unsigned tz) {
    return bx | by << 4 | bz << 8 | tx << 12 | ty << 16 | tz << 20;
}

__global__ void paint(unsigned *owner, int *visits, int *shape, int X, int Y, int Z) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x == 0 && y == 0 && z == 0) {
        shape[0] = gridDim.x; shape[1] = gridDim.y; shape[2] = gridDim.z;
        shape[3] = blockDim.x; shape[4] = blockDim.y; shape[5] = blockDim.z;
    }
    if (x >= X || y >= Y || z >= Z) return;
    int cell = (z * Y + y) * X + x;
    owner[cell] = encode(blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
                         threadIdx.z);
    atomicAdd(&visits[cell], 1);
}

static int run(dim3 grid, dim3 block, int X, int Y, int Z) {
    int cells = X * Y * Z, failures = 0;
    unsigned *d_owner;
    int *d_visits, *d_shape;
    CHECK(cudaMalloc(&d_owner, cells * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_visits, cells * sizeof(int)));
    CHECK(cudaMalloc(&d_shape, 6 * sizeof(int)));
    CHECK(cudaMemset(d_owner, 0xff, cells * sizeof(unsigned)));
    CHECK(cudaMemset(d_visits, 0, cells * sizeof(int)));
    paint<<<grid, block>>>(d_owner, d_visits, d_shape, X, Y, Z);
    CHECK(cudaGetLastError());
    std::vector<unsigned> owner(cells);
    std::vector<int> visits(cells);
    int shape[6];
    CHECK(cudaMemcpy(owner.data(), d_owner, cells * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(visits.data(), d_visits, cells * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(shape, d_shape, sizeof shape, cudaMemcpyDeviceToHost));
    int want_shape[6] = {(int)grid.x, (int)grid.y, (int)grid.z, (int)block.x, (int)block.y,
                         (int)block.z};
    for (int k = 0; k < 6; ++k)
        if (shape[k] != want_shape[k]) {
            fprintf(stderr, "shape[%d] = %d, expected %d\n", k, shape[k], want_shape[k]);
            ++failures;
        }
    for (int z = 0; z < Z; ++z)
        for (int y = 0; y < Y; ++y)
            for (int x = 0; x < X; ++x) {
                int cell = (z * Y + y) * X + x;
                unsigned want = encode(x / block.x, y / block.y, z / block.z, x % block.x,
                                       y % block.y, z % block.z);
                if ((owner[cell] != want || visits[cell] != 1) && failures++ < 5)
                    fprintf(stderr, "cell (%d,%d,%d): owner %08x visits %d, expected %08x 1\n",
                            x, y, z, owner[cell], visits[cell], want);
            }
    CHECK(cudaFree(d_owner));
    CHECK(cudaFree(d_visits));
    CHECK(cudaFree(d_shape));
    return failures;
}

int main() {
    int failures = 0;
    // 3x2x4 blocks of 4x4x2 threads over a 12x8x8 volume: 768 threads, exact fit
    failures += run(dim3(3, 2, 4), dim3(4, 4, 2), 12, 8, 8);
    // 2x3x3 blocks of 8x2x4 = 64 threads over 13x5x10: partial blocks on every axis
    failures += run(dim3(2, 3, 3), dim3(8, 2, 4), 13, 5, 10);
    if (failures) {
        fprintf(stderr, "FAIL k_grid3d: %d failures\n", failures);
        return 1;
    }
    printf("two 3D launches checked cell by cell\n");
    printf("PASS k_grid3d\n");
    return 0;
}
