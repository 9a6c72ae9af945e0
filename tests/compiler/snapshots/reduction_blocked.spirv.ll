; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @reduction_blocked(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %acc0, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca i64, align 8
  %l6 = alloca i1, align 1
  %l7 = alloca i64, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca double, align 8
  %l10 = alloca i1, align 1
  %l11 = alloca i64, align 8
  %l12 = alloca i64, align 8
  %l13 = alloca i64, align 8
  %l14 = alloca i64, align 8
  %l15 = alloca double, align 8
  %l16 = alloca double, align 8
  store i64 %6, ptr %l0, align 4
  store i64 %7, ptr %l1, align 4
  store i64 %8, ptr %l2, align 4
  br label %b0

b0:                                               ; preds = %entry
  %call = call spir_func i64 @_Z13get_global_idj(i32 0)
  store i64 %call, ptr %l3, align 4
  %call1 = call spir_func i64 @_Z15get_global_sizej(i32 0)
  store i64 %call1, ptr %l4, align 4
  %v = load i64, ptr %l2, align 4
  %v2 = load i64, ptr %l4, align 4
  %add = add i64 %v, %v2
  store i64 %add, ptr %l7, align 4
  %v3 = load i64, ptr %l7, align 4
  %sub = sub i64 %v3, 1
  store i64 %sub, ptr %l7, align 4
  %v4 = load i64, ptr %l7, align 4
  %v5 = load i64, ptr %l4, align 4
  %rz = icmp eq i64 %v5, 0
  %safe = select i1 %rz, i64 1, i64 %v5
  %q = sdiv i64 %v4, %safe
  %m = srem i64 %v4, %safe
  %nz = icmp ne i64 %m, 0
  %mneg = icmp slt i64 %m, 0
  %rneg = icmp slt i64 %safe, 0
  %differ = xor i1 %mneg, %rneg
  %fix = and i1 %nz, %differ
  %q1 = sub i64 %q, 1
  %m1 = add i64 %m, %safe
  %fq = select i1 %fix, i64 %q1, i64 %q
  %fm = select i1 %fix, i64 %m1, i64 %m
  %divres = select i1 %rz, i64 0, i64 %fq
  store i64 %divres, ptr %l7, align 4
  %v6 = load i64, ptr %l3, align 4
  %v7 = load i64, ptr %l7, align 4
  %mul = mul i64 %v6, %v7
  store i64 %mul, ptr %l5, align 4
  %v8 = load i64, ptr %l5, align 4
  %v9 = load i64, ptr %l7, align 4
  %add10 = add i64 %v8, %v9
  store i64 %add10, ptr %l8, align 4
  store double 0.000000e+00, ptr %l9, align 8
  br label %b1

b1:                                               ; preds = %b3, %b0
  %v11 = load i64, ptr %l5, align 4
  %v12 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v11, %v12
  store i1 %cmp, ptr %l6, align 1
  %v13 = load i64, ptr %l5, align 4
  %v14 = load i64, ptr %l8, align 4
  %cmp15 = icmp slt i64 %v13, %v14
  store i1 %cmp15, ptr %l10, align 1
  %v16 = load i1, ptr %l6, align 1
  %v17 = load i1, ptr %l10, align 1
  %and = and i1 %v16, %v17
  store i1 %and, ptr %l6, align 1
  %v18 = load i1, ptr %l6, align 1
  br i1 %v18, label %b2, label %b4

b2:                                               ; preds = %b1
  %v19 = load i64, ptr %l5, align 4
  store i64 %v19, ptr %l12, align 4
  %v20 = load i64, ptr %l12, align 4
  %add21 = add i64 %v20, 0
  store i64 %add21, ptr %l13, align 4
  %v22 = load i64, ptr %l13, align 4
  store i64 %v22, ptr %l14, align 4
  br label %b5

b3:                                               ; preds = %b5
  %v23 = load i64, ptr %l5, align 4
  %add24 = add i64 %v23, 1
  store i64 %add24, ptr %l5, align 4
  br label %b1

b4:                                               ; preds = %b1
  %off = add i64 %3, 0
  %p = getelementptr i8, ptr addrspace(1) %acc0, i64 %off
  %v25 = load double, ptr %l9, align 8
  %call26 = call spir_func i64 @_Z18__spirv_AtomicLoadPU3AS1lii(ptr addrspace(1) %p, i32 1, i32 0)
  br label %cas

b5:                                               ; preds = %b2
  %v29 = load i64, ptr %l14, align 4
  %t = mul i64 %v29, 8
  %off30 = add i64 %0, %t
  %p31 = getelementptr i8, ptr addrspace(1) %a, i64 %off30
  %ld = load double, ptr addrspace(1) %p31, align 8
  store double %ld, ptr %l15, align 8
  %v32 = load double, ptr %l9, align 8
  %v33 = load double, ptr %l15, align 8
  %add34 = fadd double %v32, %v33
  store double %add34, ptr %l16, align 8
  %v35 = load double, ptr %l16, align 8
  store double %v35, ptr %l9, align 8
  br label %b3

cas:                                              ; preds = %cas, %b4
  %expected = phi i64 [ %call26, %b4 ], [ %old, %cas ]
  %f = bitcast i64 %expected to double
  %add27 = fadd double %f, %v25
  %bits = bitcast double %add27 to i64
  %9 = cmpxchg ptr addrspace(1) %p, i64 %expected, i64 %bits syncscope("device") monotonic monotonic, align 8
  %old = extractvalue { i64, i1 } %9, 0
  %ok = extractvalue { i64, i1 } %9, 1
  br i1 %ok, label %cas_done, label %cas

cas_done:                                         ; preds = %cas
  %f28 = bitcast i64 %expected to double
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func i64 @_Z15get_global_sizej(i32)

declare spir_func i64 @_Z18__spirv_AtomicLoadPU3AS1lii(ptr addrspace(1), i32, i32)
