// The C++ op surface, one header per family. Each op's entry point does checks, broadcasting, promotion and
// output allocation once, then calls its kernel through a DispatchStub for the tensor's device.
#pragma once
#include "ops/complex.h"
#include "ops/conv.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/fft.h"
#include "ops/foreach.h"
#include "ops/index.h"
#include "ops/linalg.h"
#include "ops/loss.h"
#include "ops/nn.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/sparse.h"
