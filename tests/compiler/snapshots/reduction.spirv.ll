; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @reduction(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %acc0, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca i64, align 8
  %l6 = alloca i1, align 1
  %l7 = alloca double, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca i64, align 8
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
  %l12 = alloca double, align 8
  %l13 = alloca double, align 8
  store i64 %6, ptr %l0, align 4
  store i64 %7, ptr %l1, align 4
  store i64 %8, ptr %l2, align 4
  br label %b0

b0:                                               ; preds = %entry
  %call = call spir_func i64 @_Z13get_global_idj(i32 0)
  store i64 %call, ptr %l3, align 4
  %call1 = call spir_func i64 @_Z15get_global_sizej(i32 0)
  store i64 %call1, ptr %l4, align 4
  %v = load i64, ptr %l3, align 4
  store i64 %v, ptr %l5, align 4
  store double 0.000000e+00, ptr %l7, align 8
  br label %b1

b1:                                               ; preds = %b3, %b0
  %v2 = load i64, ptr %l5, align 4
  %v3 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v2, %v3
  store i1 %cmp, ptr %l6, align 1
  %v4 = load i1, ptr %l6, align 1
  br i1 %v4, label %b2, label %b4

b2:                                               ; preds = %b1
  %v5 = load i64, ptr %l5, align 4
  store i64 %v5, ptr %l9, align 4
  %v6 = load i64, ptr %l9, align 4
  %add = add i64 %v6, 0
  store i64 %add, ptr %l10, align 4
  %v7 = load i64, ptr %l10, align 4
  store i64 %v7, ptr %l11, align 4
  br label %b5

b3:                                               ; preds = %b5
  %v8 = load i64, ptr %l5, align 4
  %v9 = load i64, ptr %l4, align 4
  %add10 = add i64 %v8, %v9
  store i64 %add10, ptr %l5, align 4
  br label %b1

b4:                                               ; preds = %b1
  %off = add i64 %3, 0
  %p = getelementptr i8, ptr addrspace(1) %acc0, i64 %off
  %v11 = load double, ptr %l7, align 8
  %call12 = call spir_func i64 @_Z18__spirv_AtomicLoadPU3AS1lii(ptr addrspace(1) %p, i32 1, i32 0)
  br label %cas

b5:                                               ; preds = %b2
  %v15 = load i64, ptr %l11, align 4
  %t = mul i64 %v15, 8
  %off16 = add i64 %0, %t
  %p17 = getelementptr i8, ptr addrspace(1) %a, i64 %off16
  %ld = load double, ptr addrspace(1) %p17, align 8
  store double %ld, ptr %l12, align 8
  %v18 = load double, ptr %l7, align 8
  %v19 = load double, ptr %l12, align 8
  %add20 = fadd double %v18, %v19
  store double %add20, ptr %l13, align 8
  %v21 = load double, ptr %l13, align 8
  store double %v21, ptr %l7, align 8
  br label %b3

cas:                                              ; preds = %cas, %b4
  %expected = phi i64 [ %call12, %b4 ], [ %old, %cas ]
  %f = bitcast i64 %expected to double
  %add13 = fadd double %f, %v11
  %bits = bitcast double %add13 to i64
  %9 = cmpxchg ptr addrspace(1) %p, i64 %expected, i64 %bits syncscope("device") monotonic monotonic, align 8
  %old = extractvalue { i64, i1 } %9, 0
  %ok = extractvalue { i64, i1 } %9, 1
  br i1 %ok, label %cas_done, label %cas

cas_done:                                         ; preds = %cas
  %f14 = bitcast i64 %expected to double
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func i64 @_Z15get_global_sizej(i32)

declare spir_func i64 @_Z18__spirv_AtomicLoadPU3AS1lii(ptr addrspace(1), i32, i32)
