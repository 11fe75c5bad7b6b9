// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels for the host device's reading of mangled names: parameter types
 * of each size and alignment, names with the substitutions S_ and S0_, a
 * template, pointers to pointers and to const, LinnOS's kernel as LAKE
 * wrote it, and what cannot be called: a struct by value, extern "C".
 */

/* Each parameter echoed into out, in order. */
__global__ void echo(long long *out, char c, unsigned char uc, short s, unsigned short us,
		     int i, unsigned int u, long l, unsigned long ul, float f, double d,
		     bool b, signed char sc, long long ll, unsigned long long ull)
{
	if (threadIdx.x || blockIdx.x)
		return;
	out[0] = c;
	out[1] = uc;
	out[2] = s;
	out[3] = us;
	out[4] = i;
	out[5] = u;
	out[6] = l;
	out[7] = (long long)ul;
	out[8] = (long long)(f * 4.0f);
	out[9] = (long long)(d * 4.0);
	out[10] = b;
	out[11] = sc;
	out[12] = ll;
	out[13] = (long long)ull;
}

/* _Z11scale_pairsPfPdS_S0_: the third and fourth types are substitutions. */
__global__ void scale_pairs(float *x, double *y, float *xo, double *yo)
{
	unsigned int i = threadIdx.x;

	xo[i] = 2.0f * x[i];
	yo[i] = 3.0 * y[i];
}

/* _Z6gatherPPlPKfS_: pointer to pointer, pointer to const, S_ for long*. */
__global__ void gather(long **rows, const float *w, long *out)
{
	unsigned int i = threadIdx.x;

	out[i] = rows[i][i] * (long)w[i];
}

/* LinnOS's last layer as LAKE's kernel.cu declares it: _Z28prediction_final_layer_batchPlS_S_S_ */
__global__ void prediction_final_layer_batch(long *weight, long *bias, long *mid, long *final)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	final[i] = mid[i] * weight[i % 2] + bias[i % 2];
}

template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] += a * x[i];
}

/* _Z4axpyIdEvPT_PKS0_S0_i: T_ and S0_ stand for double. */
template __global__ void axpy<double>(double *y, const double *x, double a, int n);

/* _Z4noopv */
__global__ void noop()
{
}

struct point {
	int x, y;
};

/* A struct by value: its bytes have no place the host device can tell. */
__global__ void by_value(point p, int *out)
{
	out[0] = p.x + p.y;
}

/* _Z5applyPFiiEPi: a pointer to a function is a pointer. */
__global__ void apply(int (*f)(int), int *out)
{
	if (!f)
		out[threadIdx.x] = -1;
}

/* A member pointer is no pointer: not callable on the host device. */
__global__ void member(int point::*m, point *p, int *out)
{
	out[0] = p->*m;
}

/* No types in the name: not callable on the host device. */
extern "C" __global__ void plain_c(int *out)
{
	out[0] = 1;
}
